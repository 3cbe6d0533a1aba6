"""tools/bench: the configurations, the boots, the records they leave
and the report made of them."""
