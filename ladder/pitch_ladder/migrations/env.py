"""Alembic's entry point for the ladder's migrations, run programmatically.

``pitch_ladder.database.migrate`` passes an open connection in
``config.attributes["connection"]``; there is no ``alembic.ini``. To write a new
migration after changing ``models.py``, autogenerate it against a database at head::

    from alembic import command
    from pitch_ladder.database import alembic_config, open_database
    config = alembic_config()
    with open_database("sqlite:////tmp/dev.db", create=True).begin() as connection:
        config.attributes["connection"] = connection
        command.revision(config, "what changed", autogenerate=True)
"""

from alembic import context
from sqlmodel import SQLModel

from pitch_ladder import models  # noqa: F401  (registers the tables)

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=True,  # SQLite alters tables by copying them
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
