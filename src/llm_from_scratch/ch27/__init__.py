"""Chapter 27's learner tools, built only on the engine's public API."""
