# Terminal set-up shared by the trainsim plot scripts: PNG through pngcairo
# when this gnuplot has it, else the png terminal; SVG otherwise.
# SPDX-License-Identifier: MIT
if (fmt eq 'svg') {
	set terminal svg size 900,560 dynamic font 'Helvetica,13'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 900,560 font 'Helvetica,11'
	} else {
		set terminal png size 900,560
	}
}
set output outfile
set grid lc rgb '#dddddd'
set key top left
