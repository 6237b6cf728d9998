/* Quantities with units: "200 Gbit/s", "25 GB/s", "80 GiB", "1.5 us",
 * "312 TFLOP/s", "700 W". Everything is returned in SI base units.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_UNITS_H
#define TS_BASE_UNITS_H

#include <stddef.h>

enum ts_unit_kind {
	TS_UNIT_BYTES,	   /* B, kB, MB, GB, TB (10^3 steps), KiB, MiB, GiB, TiB */
	TS_UNIT_BANDWIDTH, /* bytes/s: B/s, kB/s, MB/s, GB/s, TB/s, GiB/s, bit/s, kbit/s, Mbit/s,
			      Gbit/s, Tbit/s (also Gb/s, Gbps) */
	TS_UNIT_TIME,	   /* seconds: ns, us (µs), ms, s, min, h, d */
	TS_UNIT_FLOPS,	   /* FLOP/s: FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s (also TFLOPS) */
	TS_UNIT_POWER,	   /* watts: W, kW, MW */
	TS_UNIT_COUNT_	   /* number of kinds */
};

/* Name of a kind ("a size in bytes", ...) for error messages. */
const char *ts_unit_kind_name(enum ts_unit_kind kind);

/* Parse `text` ("<number> <unit>", space optional) as a quantity of `kind`
 * into *out (SI base unit: bytes, bytes/s, s, FLOP/s, W). A bare number is
 * refused for every kind, sizes included ("40" is not 40 bytes: write
 * "40 B"), except a size of "0", which is 0 in any unit. Returns 0, or TS_EUNIT (unknown or missing
 * unit), TS_ESYNTAX (no number, or one not in decimal: "0x1p4 GB", "inf W"),
 * TS_ERANGE (negative, NaN or infinite); on
 * failure `why` (size n, may be NULL) says what was found and expected. */
int ts_units_parse(const char *text, enum ts_unit_kind kind, double *out, char *why, size_t n);

/* Format `v` (SI base unit) with a readable binary (bytes) or decimal
 * (others) prefix into buf, e.g. "25 MiB", "200 GB/s", "1.5 us". Returns buf. */
char *ts_units_format(double v, enum ts_unit_kind kind, char *buf, size_t n);

/* Format `v` with printf format `fmt`, which holds one double conversion
 * (e.g. "%.1f days", "$%.2f"), into buf. A fixed-point conversion (%.Nf) of
 * a value of 1e9 or more in magnitude becomes "%.3g", so no number prints
 * as a string of more than about a dozen digits; a NaN or an infinity
 * prints as TS_UNITS_NA. Returns buf. */
char *ts_units_format_num(char *buf, size_t n, const char *fmt, double v);

/* A duration s (seconds) in the unit people use for it into buf: below
 * two minutes as ts_units_format of a time ("12.3 s", "640 ms", a negative
 * one with its sign, "0 s"), then "%.1f min" below two hours, "%.1f h"
 * below two days and "%.1f days"; TS_UNITS_NA when not finite. The text
 * reports' durations (report_fmt) and the advice's messages share it.
 * Returns buf. */
char *ts_units_format_duration(double s, char *buf, size_t n);

/* What a value that is not finite prints as. */
#define TS_UNITS_NA "n/a (not finite)"

#endif
