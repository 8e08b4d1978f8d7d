"""Labelling: drafting claims with an LLM, and planning which claims to label next."""
