/* trainsim list: the GPU and link types of the hardware catalog, the bundled
 * clusters (configs/clusters/) and models (models/), as a table, CSV or JSON.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: trainsim list KIND [NAME] [--format text|csv|json]\n"
		     "\n"
		     "What trainsim knows, from its data folder (configs/, models/; $TS_DATA_DIR\n"
		     "adds your own). KIND is one of:\n"
		     "  gpus       GPU types of the hardware catalog (configs/hardware/)\n"
		     "  links      link and NIC types (NVLink, PCIe, InfiniBand, Ethernet)\n"
		     "  storage    storage types (local NVMe, NFS, Lustre, page cache, ...)\n"
		     "  clusters   bundled clusters (configs/clusters/): a scenario's cluster\n"
		     "  models     bundled models (models/): a scenario's model\n"
		     "  datasets   bundled datasets (configs/datasets/): data.dataset\n"
		     "  scenarios  bundled scenarios (configs/scenarios/)\n"
		     "\n"
		     "With NAME, one entry field by field: each value as its file states it,\n"
		     "the source the file gives for it, and the file and line.\n"
		     "\n"
		     "example:\n"
		     "  trainsim list clusters\n"
		     "  trainsim list gpus H100-SXM5-80GB\n"
		     "  trainsim list storage --format csv\n");
}

int cli_list(int argc, char **argv)
{
	const char *kind = NULL, *name = NULL, *format = "text";
	enum { O_FORMAT = 1 };
	static const struct cli_opt opts[] = {{O_FORMAT, "--format", NULL, "text, csv or json"},
					      {0}};
	struct cli_opts p;
	const char *v;
	cli_opt_init(&p, "list", opts, usage, argc, argv);
	for (int id; (id = cli_opt_next(&p, &v)) != CLI_OPT_END;) {
		if (id == CLI_OPT_STOP)
			return p.rc;
		if (id == O_FORMAT) {
			format = v;
		} else if (!kind) {
			kind = v;
		} else if (!name) {
			name = v;
		} else {
			fprintf(stderr,
				"trainsim list: found a third argument \"%s\", expected KIND and "
				"at most one NAME\n",
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
	if (name ? ts_list_entry_write(env, kind, name, fmt, stdout)
		 : ts_list_write(env, kind, fmt, stdout))
		rc = cli_fail("list");
	ts_env_close(env);
	return rc;
}
