/* The one option parser of every trainsim command.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

void cli_opt_init(struct cli_opts *p, const char *cmd, const struct cli_opt *opts,
		  void (*usage)(FILE *out), int argc, char **argv)
{
	*p = (struct cli_opts){
	    .cmd = cmd, .opts = opts, .usage = usage, .argc = argc, .argv = argv, .i = 1};
}

/* "--a, --b or -c": the options of the table, for a message. */
static void list_opts(const struct cli_opts *p, char *buf, size_t n)
{
	size_t k = 0, count = 0, total = 0;
	for (const struct cli_opt *o = p->opts; o->id; o++)
		total++;
	buf[0] = '\0';
	for (const struct cli_opt *o = p->opts; o->id && k < n; o++) {
		count++;
		const char *sep = count == 1 ? "" : count == total ? " or " : ", ";
		k += (size_t)snprintf(buf + k, n - k, "%s%s", sep, o->lng ? o->lng : o->shrt);
	}
}

/* What next_raw returns for help and for a malformed option. */
enum { OPT_HELP = -2, OPT_ERR = -3 };

static int unknown(const struct cli_opts *p, const char *a)
{
	char names[600];
	list_opts(p, names, sizeof names);
	fprintf(stderr,
		"trainsim %s: found unknown option \"%s\", expected %s%s(see trainsim %s "
		"--help)\n",
		p->cmd, a, names, names[0] ? " " : "", p->cmd);
	return OPT_ERR;
}

static int next_raw(struct cli_opts *p, const char **val)
{
	*val = NULL;
	if (p->i >= p->argc)
		return CLI_OPT_END;
	const char *a = p->argv[p->i++];
	if (p->rest || a[0] != '-' || !a[1]) {
		*val = a;
		return CLI_OPT_ARG;
	}
	if (!strcmp(a, "--")) {
		p->rest = true;
		return next_raw(p, val);
	}
	if (!strcmp(a, "-h") || !strcmp(a, "--help"))
		return OPT_HELP;
	const struct cli_opt *o = NULL;
	const char *attached = NULL; /* --name=VALUE or -xVALUE */
	if (a[1] == '-') {
		size_t len = strcspn(a, "=");
		for (const struct cli_opt *t = p->opts; t->id && !o; t++)
			if (t->lng && strlen(t->lng) == len && !strncmp(t->lng, a, len))
				o = t;
		if (o && a[len] == '=')
			attached = a + len + 1;
	} else {
		for (const struct cli_opt *t = p->opts; t->id && !o; t++)
			if (t->shrt && t->shrt[1] == a[1])
				o = t;
		if (o && a[2])
			attached = a + 2;
	}
	if (!o)
		return unknown(p, a);
	const char *name = a[1] == '-' ? o->lng : o->shrt;
	if (!o->value) {
		if (attached) {
			if (a[1] != '-') /* -fx: not a bundle of flags */
				return unknown(p, a);
			fprintf(stderr,
				"trainsim %s: %s: found the value \"%s\", expected none (it "
				"is a switch)\n",
				p->cmd, name, attached);
			return OPT_ERR;
		}
		return o->id;
	}
	if (attached && a[1] != '-' && attached[0] == '=') {
		/* -o=x.csv: getopt would take "=x.csv" as the value */
		fprintf(stderr,
			"trainsim %s: %s: found \"%s\", expected %s as \"%s %s\" or "
			"\"%s%s\"\n",
			p->cmd, name, a, o->value, name, attached + 1, o->lng ? o->lng : name,
			o->lng ? attached : attached + 1);
		return OPT_ERR;
	}
	if (!attached) {
		if (p->i >= p->argc) {
			fprintf(stderr, "trainsim %s: %s: found nothing, expected %s after it\n",
				p->cmd, name, o->value);
			return OPT_ERR;
		}
		attached = p->argv[p->i++];
	}
	*val = attached;
	return o->id;
}

int cli_opt_next(struct cli_opts *p, const char **val)
{
	int id = next_raw(p, val);
	if (id == OPT_HELP) {
		p->usage(stdout);
		p->rc = CLI_OK;
		return CLI_OPT_STOP;
	}
	if (id == OPT_ERR) {
		p->rc = CLI_USAGE;
		return CLI_OPT_STOP;
	}
	return id;
}

int cli_opt_long(const char *cmd, const char *opt, const char *v, long lo, long hi,
		 const char *what, long *out)
{
	long long n;
	if (ts_parse_count(v, lo, hi, &n)) {
		fprintf(stderr, "trainsim %s: %s: found \"%s\", expected %s\n", cmd, opt, v, what);
		return -1;
	}
	*out = (long)n;
	return 0;
}
