"""patchbay's tools as one package; the commands in tools/ (run, bench,
gen-docs, explore, pvsites, tour, ksyms, doclinks, ...) are entry points
into it. Its folders are the jobs: run/ the doors tools/run boots
through, bench/ the benchmarks and their report, docs/ docs' generated
blocks and the checks of their prose, explore/ the site tools/explore
writes, elf/ the readers of the image. paths says where the tree and the
build are; the modules here serve several of them."""
