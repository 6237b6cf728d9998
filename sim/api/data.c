/* Data in memory for bindings: a buffer that any writer of the public API
 * writes into (open_memstream), scenario text loaded without a file, and a
 * sweep written whole to a stream. A thin layer over the writers: the text,
 * CSV and JSON are theirs, byte for byte; nothing here formats a figure.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "report/sweeprow.h"
#include "sweep/sweep.h"

/* The stream and the storage open_memstream keeps up to date. */
struct ts_buffer {
	FILE *f;
	char *text; /* malloc'd by the C library's stream */
	size_t len;
};

int ts_buffer_open(ts_buffer **out)
{
	*out = NULL;
	ts_buffer *b = ts_calloc(1, sizeof *b);
	if (!b)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	if (!(b->f = open_memstream(&b->text, &b->len))) {
		ts_free(b, sizeof *b);
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	}
	*out = b;
	return 0;
}

FILE *ts_buffer_stream(ts_buffer *b)
{
	return b->f;
}

int ts_buffer_finish(ts_buffer *b, char **text, size_t *len)
{
	*text = NULL;
	if (len)
		*len = 0;
	int bad = ferror(b->f), e = errno;
	int closed = fclose(b->f); /* sets b->text and b->len */
	char *t = b->text;
	size_t n = b->len;
	ts_free(b, sizeof *b);
	if (bad || closed || !t) {
		free(t);
		return api_failf(bad ? TS_EIO : TS_ENOMEM, NULL, "writing into memory failed (%s)",
				 strerror(bad ? e : ENOMEM));
	}
	*text = t;
	if (len)
		*len = n;
	return 0;
}

void ts_buffer_free(ts_buffer *b)
{
	if (!b)
		return;
	fclose(b->f);
	free(b->text);
	ts_free(b, sizeof *b);
}

void ts_string_free(char *text)
{
	free(text);
}

int ts_scenario_load_text(const ts_env *env, const char *text, const char *label,
			  const char *const *sets, size_t nsets, ts_scenario **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	*out = NULL;
	if (!text)
		return api_failf(TS_EUSAGE, NULL, "found no scenario text, expected libconfig");
	return ts_scenario_load_string(env->cat, text, label ? label : "<string>", sets, nsets, out,
				       &err)
		   ? api_fail(&err)
		   : 0;
}

int ts_sweep_write(const ts_sweep *sw, int threads, FILE *out)
{
	struct ts_error err;
	ts_error_clear(&err);
	char *head = ts_malloc(SWEEP_ROW_MAX);
	if (!head)
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	int rc = sweep_csv_header(sw->sp, &report_sweep_cols, head, SWEEP_ROW_MAX);
	if (!rc && fputs(head, out) == EOF)
		rc = TS_EIO;
	ts_free(head, SWEEP_ROW_MAX);
	if (rc)
		return api_failf(rc == TS_ELIMIT ? TS_ELIMIT : TS_EIO, NULL,
				 "writing the sweep's header failed");
	return sweep_run_env(sw->sp, &report_sweep_cols, sw->env, sw->sp->shard_k, threads, out,
			     NULL, NULL, &err)
		   ? api_fail(&err)
		   : 0;
}
