"""Being written: the viewer router."""

from fastapi import APIRouter

router = APIRouter()
