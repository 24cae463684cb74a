"""What a case means, beyond its words: sentence vectors of the texts a case has in one
language and lacks in the other, so that a search in Korean finds a case whose English has not
been translated yet (and the other way round).

- models.py: CaseMeaning, one vector per case and language, with the case version it was made
  from;
- encoder.py: the multilingual sentence encoder (Google's USE v3, shipped in its wheel);
- embedding.py: which texts a case lacks in a language, and the pass that brings stale vectors
  up to date (run by the worker, tasks.py, never in a request or an import's transaction);
- nearest.py: the cases nearest to a search's words, for cases/listing/search.py.
"""
