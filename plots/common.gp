# Terminal set-up shared by the trainsim plot scripts: PNG through pngcairo
# when this gnuplot has it, else the png terminal; SVG; PDF through
# pdfcairo. The settings trainsim plot loads first (title_plot, xlabel,
# nseries, logx) have defaults here, so a script also runs by hand.
# SPDX-License-Identifier: MIT
if (!exists('title_plot')) title_plot = ''
if (!exists('xlabel')) xlabel = ''
if (!exists('nseries')) nseries = 1
if (!exists('logx')) logx = 0
if (fmt eq 'svg') {
	set terminal svg size 900,560 dynamic font 'Helvetica,13'
} else {
	if (fmt eq 'pdf') {
		set terminal pdfcairo size 9in,5.6in font 'Helvetica,11'
	} else {
		if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
			set terminal pngcairo size 900,560 font 'Helvetica,11'
		} else {
			set terminal png size 900,560
		}
	}
}
set output outfile
set grid lc rgb '#dddddd'
set key top left
set title title_plot noenhanced
