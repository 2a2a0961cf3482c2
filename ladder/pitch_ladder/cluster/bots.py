"""Bots reach a cluster's workers by content hash, each version once per worker.

The owner (the process that plays the match: ``pitch match``, ``ladder run``, the
service's scheduler) packs each bot version it needs (``archive.pack``) and publishes the
archive's bytes on the scheduler as a dataset named by the version's content hash, once per
cluster (``BotShelf``). A task names its bots by ``BotRef``; a worker that lacks a
version fetches its archive once, unpacks it with ``archive.unpack`` (which trusts
nothing in it), checks the content hash and keeps the folder in its cache, keyed by the
hash (``fetch_bot``); every later task on that worker reuses it.

Imports Dask: only cluster code imports this module.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from distributed import Client, get_client, get_worker

from pitch_referee.manifest import BotManifest, load_manifest

from ..archive import pack, unpack
from ..errors import LadderError
from ..submit import content_hash

DATASET_PREFIX = "pitch-bot-"
"""A bot version's archive is published as the dataset ``pitch-bot-<content hash>``."""
CACHE = "pitch-bots"
"""The folder, in each worker's local directory, of the bot versions it has fetched."""


@dataclass(frozen=True)
class BotRef:
    """A bot version as a task names it: the worker finds or fetches it by ``digest``."""

    name: str
    digest: str
    """``submit.content_hash`` of the bot's folder."""

    @property
    def dataset(self) -> str:
        return DATASET_PREFIX + self.digest


class BotShelf:
    """The owner's side: publishes each bot version it is asked for once on the cluster."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._refs: dict[Path, BotRef] = {}
        self._lock = threading.Lock()  # a ladder plays several matches on threads

    def ref(self, bot: BotManifest) -> BotRef:
        """The reference to ``bot``'s folder, its archive published if the cluster lacks it.

        Raises:
            LadderError: the folder cannot be packed (a link in it, over a limit).
        """
        with self._lock:
            known = self._refs.get(bot.folder)
            if known is None:
                known = BotRef(bot.name, content_hash(bot.folder))
                if known.dataset not in self.client.list_datasets():
                    self._publish(bot.folder, known)
                self._refs[bot.folder] = known
            return known

    def _publish(self, folder: Path, ref: BotRef) -> None:
        with tempfile.TemporaryDirectory(prefix="pitch-pack-") as scratch:
            archive = Path(scratch) / "bot.tar.gz"
            pack(folder, archive)
            data = archive.read_bytes()
        # The bytes themselves, kept by the scheduler: no worker's death loses them. A
        # KeyError: another owner published the same version meanwhile (the same bytes).
        with contextlib.suppress(KeyError):
            self.client.publish_dataset(data, name=ref.dataset)


_fetching = threading.Lock()
"""One fetch at a time in a worker process (its threads may want the same bot)."""


def fetch_bot(ref: BotRef) -> tuple[BotManifest, bool]:
    """On a worker: the bot's folder from this worker's cache, fetched first if missing;
    its manifest and whether it was fetched now.

    Raises:
        RuntimeError: the cluster has no archive of that version, or the archive is
            refused or does not hash to ``ref.digest`` (nothing is cached then).
    """
    cache = Path(get_worker().local_directory) / CACHE
    folder = cache / ref.digest
    with _fetching:
        if folder.is_dir():
            return load_manifest(folder), False
        try:
            data = get_client().get_dataset(ref.dataset)
        except KeyError:
            raise RuntimeError(
                f"the cluster has no archive of {ref.name} ({ref.digest[:12]})"
            ) from None
        cache.mkdir(exist_ok=True)
        unpacked = Path(tempfile.mkdtemp(prefix="fetch-", dir=cache)) / "bot"
        try:
            unpack(io.BytesIO(data), unpacked)
            found = content_hash(unpacked)
            if found != ref.digest:
                raise RuntimeError(
                    f"the archive of {ref.name} hashes to {found[:12]}, not {ref.digest[:12]}"
                )
            unpacked.rename(folder)
        except LadderError as error:
            raise RuntimeError(f"the archive of {ref.name} is refused: {error}") from None
        finally:
            shutil.rmtree(unpacked.parent, ignore_errors=True)
    return load_manifest(folder), True
