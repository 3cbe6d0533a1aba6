# The call-site explorer: a static HTML site from the image and the last
# benchmark run (tools/explore). Included by the top-level Makefile, after
# tools/tools.mk (PVEMIT).
#
#   make explore        writes $(BUILD)/explore/; open $(BUILD)/explore/index.html
#   make explore-test   the markdown converter, the site's structure, then the
#                       site in headless Chromium
#
# explore-test shows the results of bench-test's quick run when there is one,
# else those of `make bench`, else none (the benchmark pages then say to run
# make bench, and show what the docs quote; the test also writes a site with
# no run to check that); its site goes to $(BUILD)/tests/explore/, its
# screenshot to $(BUILD)/explore-screenshot.png.

EXPLORE_BENCH = $(firstword $(patsubst %/results.json,%,$(wildcard \
	$(BUILD)/tests/bench/quick/results.json $(BUILD)/bench/results.json)) $(BUILD)/bench)

.PHONY: explore explore-test
# The explorer, build/explore/: pages of the image's sites and benchmarks.
explore: $(IMAGE) $(PVEMIT)
	tools/explore --image $(IMAGE) --bench $(BUILD)/bench --out $(BUILD)/explore

# The explorer's pages checked, and clicked through in Chromium.
explore-test: $(IMAGE) $(PVEMIT)
	pytest-3 tests/explore/test_markdown_html.py tests/explore/test_explore_html.py \
		tests/explore/test_explore_browser.py --image $(IMAGE) --bench $(EXPLORE_BENCH) \
		--out $(BUILD)/tests/explore/site --screenshot $(BUILD)/explore-screenshot.png
