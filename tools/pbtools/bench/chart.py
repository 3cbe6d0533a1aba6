"""The report's charts: clustered histograms drawn by gnuplot into SVG,
one way for every section (tools/bench_report.py's headline costs,
tools/pbtools/bench/io_report.py's paravirtual I/O)."""

import os
import subprocess


def histogram(out, name, rows, titles, title, ylabel, log=False, height=520):
    """out/NAME.svg (with its data, out/NAME.dat): one cluster per row
    (label, values; None for no figure), one bar a value, titled by
    titles. False when there is nothing to draw, or no gnuplot."""
    if not rows:
        return False
    dat, svg = os.path.join(out, name + ".dat"), os.path.join(out, name + ".svg")
    with open(dat, "w") as f:
        for label, values in rows:
            f.write(label + " " + " ".join("NaN" if v is None else "%.2f" % v for v in values)
                    + "\n")
    plots = ['"%s" using 2:xtic(1) title "%s"' % (dat, titles[0])]
    plots += ['"" using %d title "%s"' % (i + 2, t) for i, t in enumerate(titles) if i > 0]
    script = "\n".join([
        'set terminal svg size 1000,%d dynamic font "sans,11"' % height,
        'set output "%s"' % svg,
        'set title "%s"' % title,
        'set ylabel "%s"' % ylabel] + (["set logscale y"] if log else []) + [
        "set style data histograms",
        "set style histogram clustered gap 1",
        "set style fill solid 0.85 border -1",
        "set boxwidth 0.9",
        "set xtics rotate by -30 noenhanced",
        "set key top left",
        "set grid ytics",
        'set datafile missing "NaN"',
        "plot " + ", \\\n     ".join(plots), ""])
    try:
        p = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    except OSError:
        return False
    return p.returncode == 0 and os.path.exists(svg)
