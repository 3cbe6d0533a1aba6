"""docs/: what tools/gen-docs writes into the pages, the check of what
they say by hand (prose_check), the glossary, the tour, links and the
Markdown that tools/explore renders."""
