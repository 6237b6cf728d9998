/* Calibration to one measurement: the user's scenario becomes one
 * validation row marked for fitting, and validate's fitter (val_fit) does
 * the rest, so trainsim has one fitter.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "sweep/calibrate.h"

int calib_compact(const char *text, char *buf, size_t n)
{
	size_t k = 0;
	bool in_str = false, space = false;
	for (const char *p = text; *p; p++) {
		char ch = *p;
		if (!in_str && (ch == '#' || (ch == '/' && p[1] == '/'))) {
			while (p[1] && p[1] != '\n')
				p++;
			continue;
		}
		if (!in_str && isspace((unsigned char)ch)) {
			space = k > 0;
			continue;
		}
		if (space) {
			if (k + 1 >= n)
				return TS_ELIMIT;
			buf[k++] = ' ';
			space = false;
		}
		if (ch == '"' && (p == text || p[-1] != '\\'))
			in_str = !in_str;
		if (k + 1 >= n)
			return TS_ELIMIT;
		buf[k++] = ch;
	}
	buf[k] = '\0';
	return 0;
}

int calib_fit_iteration(const struct hw_catalog *cat, const struct work_calib *start,
			const char *text, const char *label, double measured_s,
			struct val_fit_result *out, struct ts_error *err)
{
	if (!(measured_s > 0.0) || !isfinite(measured_s))
		return ts_error_set(err, TS_ERANGE, NULL, 0, "--measured-iteration-s",
				    "found %g, expected a positive time in seconds", measured_s);
	struct val_row row;
	memset(&row, 0, sizeof row);
	snprintf(row.id, sizeof row.id, "measured");
	snprintf(row.source, sizeof row.source, "%s", val_source_name(VAL_VTRAIN));
	row.src = VAL_VTRAIN; /* val_fit fits on vTrain rows marked fitting */
	row.index = 1;
	row.fitting = true;
	row.metric = VAL_ITERATION_S;
	row.measured = measured_s;
	if (calib_compact(text, row.scenario, sizeof row.scenario))
		return ts_error_set(err, TS_ELIMIT, label, 0, NULL,
				    "found a scenario of more than %zu bytes without comments, "
				    "expected a shorter one (name the model and cluster instead "
				    "of inline groups)",
				    sizeof row.scenario - 1);
	/* a first run names the scenario's own errors with its file name */
	double pred;
	int rc = val_predict(cat, start, &row, &pred, err);
	if (rc) {
		if (err && !strcmp(err->file, row.id))
			snprintf(err->file, sizeof err->file, "%s", label);
		return rc;
	}
	return val_fit(cat, start, &row, 1, out, err);
}
