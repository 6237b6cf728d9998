/* trainsim list: the GPU and link types of the hardware catalog, the bundled
 * clusters (configs/clusters/) and models (models/), as a table, CSV or JSON.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim list gpus|links|clusters|models [--format text|csv|json]\n");
}

int cli_list(int argc, char **argv)
{
	const char *kind = NULL, *format = "text";
	enum { O_FORMAT = 1 };
	static const struct cli_opt opts[] = {{O_FORMAT, "--format", NULL, "text, csv or json"},
					      {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "list", opts, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_ERR)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			usage(stdout);
			return CLI_OK;
		}
		if (id == O_FORMAT) {
			format = v;
		} else if (!kind) {
			kind = v;
		} else {
			fprintf(stderr,
				"trainsim list: found a second kind \"%s\", expected one of "
				"gpus, links, clusters, models\n",
				v);
			return CLI_USAGE;
		}
	}
	enum ts_format fmt;
	if (ts_format_parse(format, &fmt))
		return cli_fail("list");
	ts_env *env = NULL;
	int rc = cli_env("list", NULL, &env);
	if (rc)
		return rc;
	if (ts_list_write(env, kind, fmt, stdout))
		rc = cli_fail("list");
	ts_env_close(env);
	return rc;
}
