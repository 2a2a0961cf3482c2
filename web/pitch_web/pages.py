"""Being written: the pages router."""

from fastapi import APIRouter

router = APIRouter()
