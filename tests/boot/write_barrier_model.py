"""The write-barrier workload of kernel/write_barrier.c, worked out in Python
from its definition: which pages each mutator writes, hence the fault count,
and the checksum the collector folds over the dirty pages. The kernel must
print the same numbers on every platform and in every xen.mmu mode."""

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
WORDS_PER_PAGE = 512
MAX_MUTATORS = 8  # WL_MAX_MUTATORS: it spaces the seeds of the mutators


def mix64(z):
    """splitmix64's finaliser."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def word_term(i, value):
    return mix64(value ^ ((i * GOLDEN) & MASK))


# A page's checksum is a sum over its words; a fresh page is all zeroes.
ZERO_PAGE = sum(word_term(i, 0) for i in range(WORDS_PER_PAGE)) & MASK


def page_checksum(words):
    """words: {index: value} of the nonzero words."""
    s = ZERO_PAGE
    for i, v in words.items():
        s += word_term(i, v) - word_term(i, 0)
    return s & MASK


def mutator_writes(pages, threads, cycle, seed, tid, writes):
    """(page, word, value) for each write of mutator tid, in order."""
    owned = (pages - tid + threads - 1) // threads if tid < pages else 0
    state = (seed + (cycle * MAX_MUTATORS + tid) * 0xD1B54A32D192ED03) & MASK
    count = writes // threads + (1 if tid < writes % threads else 0)
    for _ in range(count if owned else 0):
        state = (state + GOLDEN) & MASK
        r = mix64(state)
        state = (state + GOLDEN) & MASK
        yield (r % owned) * threads + tid, (r >> 32) % WORDS_PER_PAGE, mix64(state)


def write_barrier(pages=2048, threads=2, cycles=4, seed=1):
    """(faults, checksum) the workload must report."""
    heap, faults, total = {}, 0, 0
    writes = max(pages // 2, 1)
    for cycle in range(cycles):
        dirty = set()
        for tid in range(threads):
            for page, word, value in mutator_writes(pages, threads, cycle, seed, tid, writes):
                heap.setdefault(page, {})[word] = value
                dirty.add(page)
        for p in sorted(dirty):
            total = (total * 0x100000001B3 + (p ^ page_checksum(heap[p]))) & MASK
        faults += len(dirty)
    return faults, total


def summary_regex(pages=2048, threads=2, cycles=4, seed=1):
    """The workload's summary line, exactly."""
    faults, total = write_barrier(pages, threads, cycles, seed)
    return (r"^wl: %d cycles x %d pages, %d mutators, seed %d: %d faults, checksums ok "
            r"\(0x%016x\)$" % (cycles, pages, threads, seed, faults, total))
