/* Opening files: every file or directory the library opens goes through
 * these calls, which count the attempts, so a test can check that a run, a
 * sweep point or a search candidate opens nothing once its plan is built.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_FILE_H
#define TS_BASE_FILE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>

/* fopen(3), counted. Same return and errno. */
FILE *ts_fopen(const char *path, const char *mode);

/* open(2) without O_CREAT (no mode), counted. Same return and errno. */
int ts_open(const char *path, int flags);

/* open(2) with O_CREAT and a mode (an output file), counted. Same return
 * and errno. */
int ts_open_create(const char *path, int flags, unsigned mode);

/* mkstemp(3) (a temporary output file next to its final name), counted.
 * Same return and errno; tmpl is rewritten as mkstemp does. */
int ts_mkstemp(char *tmpl);

/* opendir(3), counted. Same return and errno. */
DIR *ts_opendir(const char *path);

/* Files and directories the library has tried to open since the process
 * started (successful or not), over every thread. */
uint64_t ts_files_opened(void);

#endif
