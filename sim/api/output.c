/* The public output calls: outputs checked against inputs and the bundled
 * data before any work, and written through report/outfile (a temporary file
 * renamed on success), or to standard output for "-".
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api_int.h"
#include "base/alloc.h"
#include "io/scenario.h"
#include "plan/env.h"
#include "report/outfile.h"

/* The data root's folders: an output anywhere inside one is refused. */
static const char *const bundled[] = {"configs", "models", "plots"};
#define NBUNDLED (sizeof bundled / sizeof bundled[0])
#define DIR_MAX 4200

int ts_output_check(const ts_env *env, const struct ts_output_arg *outs, size_t nout,
		    const struct ts_output_arg *ins, size_t nin)
{
	struct ts_error err;
	ts_error_clear(&err);
	size_t no = nout ? nout : 1, ni = nin + NBUNDLED;
	struct outfile_arg *o = ts_calloc(no, sizeof *o), *in = ts_calloc(ni, sizeof *in);
	char *dirs = ts_malloc(NBUNDLED * DIR_MAX);
	int rc = 0;
	if (!o || !in || !dirs) {
		rc = api_failf(TS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nout; i++) /* "-" is standard output: nothing to check */
		o[i] = (struct outfile_arg){
		    outs[i].opt, outs[i].path && strcmp(outs[i].path, "-") ? outs[i].path : NULL};
	for (size_t i = 0; i < nin; i++)
		in[i] = (struct outfile_arg){ins[i].opt, ins[i].path};
	for (size_t i = 0; i < NBUNDLED; i++) {
		snprintf(dirs + i * DIR_MAX, DIR_MAX, "%s/%s", env->root, bundled[i]);
		in[nin + i] = (struct outfile_arg){"bundled data", dirs + i * DIR_MAX};
	}
	if (outfile_check(o, nout, in, ni, &err))
		rc = api_fail(&err);
out:
	ts_free(o, no * sizeof *o);
	ts_free(in, ni * sizeof *in);
	ts_free(dirs, NBUNDLED * DIR_MAX);
	return rc;
}

int api_output_wrap(struct outfile *of, ts_output **out)
{
	*out = ts_calloc(1, sizeof **out);
	if (!*out) {
		outfile_abort(of);
		return api_failf(TS_ENOMEM, NULL, "out of memory");
	}
	(*out)->of = of;
	return 0;
}

int ts_output_open(const char *path, const char *opt, ts_output **out)
{
	struct ts_error err;
	ts_error_clear(&err);
	*out = NULL;
	struct outfile *of = NULL;
	if (!path || !*path)
		return api_failf(TS_EUSAGE, opt, "found %s, expected an output file or -",
				 path ? "an empty file name" : "no file name");
	if (strcmp(path, "-") && outfile_open(path, opt, &of, &err))
		return api_fail(&err);
	return api_output_wrap(of, out);
}

void ts_output_remove_temps(void)
{
	outfile_remove_temps();
}

FILE *ts_output_stream(const ts_output *o)
{
	return o->of ? outfile_stream(o->of) : stdout;
}

const char *ts_output_file(const ts_output *o)
{
	return o->of ? outfile_temp(o->of) : NULL;
}

/* A failed write to standard output, with the reason. */
static int stdout_error(int errnum)
{
	return api_failf(TS_EIO, NULL, "writing to standard output failed (%s)",
			 errnum ? strerror(errnum) : "write error");
}

int ts_output_commit(ts_output *o)
{
	if (!o)
		return 0;
	struct ts_error err;
	ts_error_clear(&err);
	int rc = 0;
	if (o->of) {
		if (outfile_commit(o->of, &err))
			rc = api_fail(&err);
	} else if (fflush(stdout) || ferror(stdout)) {
		rc = stdout_error(errno);
	}
	ts_free(o, sizeof *o);
	return rc;
}

void ts_output_abort(ts_output *o)
{
	if (!o)
		return;
	outfile_abort(o->of);
	ts_free(o, sizeof *o);
}

int ts_output_write_error(const ts_output *o, int errnum)
{
	if (!o->of)
		return stdout_error(errnum);
	struct ts_error err;
	ts_error_clear(&err);
	outfile_write_error(o->of, errnum, &err);
	return api_fail(&err);
}

const char *ts_scenario_model_file(const ts_scenario *sc)
{
	return sc->model_file[0] ? sc->model_file : NULL;
}

const char *ts_scenario_cluster_file(const ts_scenario *sc)
{
	return sc->cluster_file[0] ? sc->cluster_file : NULL;
}
