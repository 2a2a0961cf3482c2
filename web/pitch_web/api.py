"""Being written: the api router."""

from fastapi import APIRouter

router = APIRouter()
