"""Being written: the live router."""

from fastapi import APIRouter

router = APIRouter()
