/* Quantity parsing. Units are matched exactly against a table per kind, so a
 * unit of the wrong kind ("25 GB/s" where a size is wanted) is an error that
 * lists what would have been accepted.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/units.h"

struct unit {
	const char *name;
	double scale; /* to the SI base unit */
};

static const struct unit bytes_units[] = {{"B", 1.0},
					  {"kB", 1e3},
					  {"KB", 1e3},
					  {"MB", 1e6},
					  {"GB", 1e9},
					  {"TB", 1e12},
					  {"KiB", 1024.0},
					  {"MiB", 1048576.0},
					  {"GiB", 1073741824.0},
					  {"TiB", 1099511627776.0},
					  {NULL, 0}};

static const struct unit bw_units[] = {
    {"B/s", 1.0},      {"kB/s", 1e3},	     {"KB/s", 1e3},
    {"MB/s", 1e6},     {"GB/s", 1e9},	     {"TB/s", 1e12},
    {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
    {"bit/s", 0.125},  {"kbit/s", 125.0},    {"Mbit/s", 125e3},
    {"Gbit/s", 125e6}, {"Tbit/s", 125e9},    {"Kb/s", 125.0},
    {"Mb/s", 125e3},   {"Gb/s", 125e6},	     {"Tb/s", 125e9},
    {"Mbps", 125e3},   {"Gbps", 125e6},	     {"Tbps", 125e9},
    {NULL, 0}};

static const struct unit time_units[] = {{"ns", 1e-9},	{"us", 1e-6},	{"\xc2\xb5s", 1e-6},
					 {"ms", 1e-3},	{"s", 1.0},	{"min", 60.0},
					 {"h", 3600.0}, {"d", 86400.0}, {NULL, 0}};

static const struct unit flops_units[] = {{"FLOP/s", 1.0},   {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12},
					  {"PFLOP/s", 1e15}, {"FLOPS", 1.0},   {"GFLOPS", 1e9},
					  {"TFLOPS", 1e12},  {"PFLOPS", 1e15}, {NULL, 0}};

static const struct unit power_units[] = {{"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}, {NULL, 0}};

static const struct unit *const tables[TS_UNIT_COUNT_] = {bytes_units, bw_units, time_units,
							  flops_units, power_units};

static const char *const kind_names[TS_UNIT_COUNT_] = {
    "a size (e.g. \"80 GiB\", \"25 MiB\")", "a bandwidth (e.g. \"200 Gbit/s\", \"25 GB/s\")",
    "a time (e.g. \"1.5 us\", \"20 ms\")", "a compute rate (e.g. \"312 TFLOP/s\")",
    "a power (e.g. \"700 W\", \"6.5 kW\")"};

const char *ts_unit_kind_name(enum ts_unit_kind kind)
{
	return (unsigned)kind < TS_UNIT_COUNT_ ? kind_names[kind] : "a quantity";
}

static void say(char *why, size_t n, const char *fmt, const char *a, const char *b)
{
	if (why && n)
		snprintf(why, n, fmt, a, b);
}

int ts_units_parse(const char *text, enum ts_unit_kind kind, double *out, char *why, size_t n)
{
	if ((unsigned)kind >= TS_UNIT_COUNT_ || !text)
		return TS_EUNIT;
	const char *s = text;
	while (isspace((unsigned char)*s))
		s++;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* a decimal number only: strtod also reads hexadecimal floats
	 * ("0x1p4" is 16) and "inf", which no unit string means */
	if (end == s || s + strspn(s, "0123456789.eE+-") < end) {
		say(why, n, "found \"%s\", expected %s written in decimal", text, kind_names[kind]);
		return TS_ESYNTAX;
	}
	if (errno == ERANGE || !isfinite(v) || v < 0.0) {
		say(why, n, "found \"%s\", expected %s that is finite and not negative", text,
		    kind_names[kind]);
		return TS_ERANGE;
	}
	while (isspace((unsigned char)*end))
		end++;
	char unit[32];
	size_t len = strlen(end);
	while (len > 0 && isspace((unsigned char)end[len - 1]))
		len--;
	if (len >= sizeof unit) {
		say(why, n, "found \"%s\", expected %s", text, kind_names[kind]);
		return TS_EUNIT;
	}
	memcpy(unit, end, len);
	unit[len] = '\0';
	if (len == 0) {
		/* a bare number is refused, a size included ("40" meant as
		 * 40 MiB would silently be 40 bytes), but for a size of zero,
		 * which is zero in any unit */
		if (kind == TS_UNIT_BYTES && v == 0.0) {
			*out = 0.0;
			return 0;
		}
		if (kind == TS_UNIT_BYTES && why && n)
			snprintf(why, n,
				 "found \"%s\" without a unit, expected a size with its unit (e.g. "
				 "\"%g MiB\", or \"%g B\" for bytes)",
				 text, v, v);
		else
			say(why, n, "found \"%s\" without a unit, expected %s", text,
			    kind_names[kind]);
		return TS_EUNIT;
	}
	for (const struct unit *u = tables[kind]; u->name; u++) {
		if (strcmp(u->name, unit) == 0) {
			*out = v * u->scale;
			return 0;
		}
	}
	if (why && n) {
		/* the units of this kind, and the one that differs only in case */
		char list[240] = "", *near = NULL;
		size_t len2 = 0;
		for (const struct unit *u = tables[kind]; u->name && len2 < sizeof list; u++) {
			len2 += (size_t)snprintf(list + len2, sizeof list - len2, "%s%s",
						 len2 ? ", " : "", u->name);
			if (!near && !strcasecmp(u->name, unit))
				near = (char *)u->name;
		}
		if (near)
			snprintf(why, n,
				 "unknown unit \"%s\", expected %s; closest: \"%s\" (units are "
				 "case-sensitive)",
				 unit, kind_names[kind], near);
		else
			snprintf(why, n, "unknown unit \"%s\", expected %s in one of: %s", unit,
				 kind_names[kind], list);
	}
	return TS_EUNIT;
}

char *ts_units_format(double v, enum ts_unit_kind kind, char *buf, size_t n)
{
	static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	static const char *const bw[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
	static const char *const fl[] = {"FLOP/s",  "kFLOP/s", "MFLOP/s",
					 "GFLOP/s", "TFLOP/s", "PFLOP/s"};
	static const char *const pw[] = {"W", "kW", "MW", "GW", "TW", "PW"};
	int i = 0;
	if (!isfinite(v)) {
		snprintf(buf, n, TS_UNITS_NA);
		return buf;
	}
	switch (kind) {
	case TS_UNIT_BYTES:
		while (fabs(v) >= 1024.0 && i < 5) {
			v /= 1024.0;
			i++;
		}
		snprintf(buf, n, "%.4g %s", v, bin[i]);
		break;
	case TS_UNIT_TIME:
		/* the next unit from where 4 digits round to 1000 ("1000 ms") */
		if (v < 9.9995e-7)
			snprintf(buf, n, "%.4g ns", v * 1e9);
		else if (v < 9.9995e-4)
			snprintf(buf, n, "%.4g us", v * 1e6);
		else if (v < 0.99995)
			snprintf(buf, n, "%.4g ms", v * 1e3);
		else
			snprintf(buf, n, "%.4g s", v);
		break;
	default: {
		const char *const *names = kind == TS_UNIT_BANDWIDTH ? bw
					   : kind == TS_UNIT_FLOPS   ? fl
								     : pw;
		while (fabs(v) >= 1000.0 && i < 5) {
			v /= 1000.0;
			i++;
		}
		snprintf(buf, n, "%.4g %s", v, names[i]);
		break;
	}
	}
	return buf;
}

char *ts_units_format_num(char *buf, size_t n, const char *fmt, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, n, TS_UNITS_NA);
		return buf;
	}
	/* the conversion: the first '%' that is not "%%" */
	const char *c = fmt;
	while ((c = strchr(c, '%')) != NULL && c[1] == '%')
		c += 2;
	size_t w = 0;
	if (c && c[1] == '.') {
		w = 2;
		while (c[w] >= '0' && c[w] <= '9')
			w++;
		w = c[w] == 'f' ? w + 1 : 0;
	}
	char wide[128];
	if (w && fabs(v) >= 1e9 && strlen(fmt) + 4 < sizeof wide) {
		size_t pre = (size_t)(c - fmt);
		snprintf(wide, sizeof wide, "%.*s%%.3g%s", (int)pre, fmt, c + w);
		fmt = wide;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, n, fmt, v);
#pragma GCC diagnostic pop
	return buf;
}

char *ts_units_format_duration(double s, char *buf, size_t n)
{
	if (!isfinite(s))
		snprintf(buf, n, TS_UNITS_NA);
	else if (s == 0.0)
		snprintf(buf, n, "0 s");
	else if (s < 0.0) {
		buf[0] = '-';
		ts_units_format(-s, TS_UNIT_TIME, buf + 1, n - 1);
	} else if (s < 120.0)
		ts_units_format(s, TS_UNIT_TIME, buf, n);
	else if (s < 7200.0)
		ts_units_format_num(buf, n, "%.1f min", s / 60.0);
	else if (s < 172800.0)
		ts_units_format_num(buf, n, "%.1f h", s / 3600.0);
	else
		ts_units_format_num(buf, n, "%.1f days", s / 86400.0);
	return buf;
}
