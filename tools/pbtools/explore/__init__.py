"""tools/explore's site: its pages, the site data and the quoted code."""
