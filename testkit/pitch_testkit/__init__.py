"""Pitch Arena's shared test helpers, one module a concern, imported by every test package as
``pitch_testkit.<module>`` (the workspace installs this distribution, ``testkit/``).

``hands`` builds exact deals for the engine tests; ``ladder`` runs the CLI and writes ladders
straight into the database (and holds the ``db_url`` fixture); ``referee`` plays games through
a real referee; ``samples``, ``journal``, ``duplicate``, ``served`` and ``processes`` give the
web tests records, live journals, deal pairs, served applications and ``pitch`` processes;
``bot_copies``, ``fair_deals``, ``timing``, ``sandbox`` and ``views`` serve the end-to-end
tests; ``query_plans`` and ``dense_bradley_terry`` are the index and rating references.
"""
