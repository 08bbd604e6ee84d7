/*
 * The few POSIX calls the shared interop tools (../shared/interop/tools)
 * use and MinGW's C runtime lacks, for building them for Windows in
 * scripts/test-windows.sh (forced in with -include). Nothing on other
 * systems. There is no fork: fork() fails, so b2gen runs its self-checks
 * in-process, and b2check is run with --no-fork.
 */
#ifndef BLOSC2_RS_POSIX_SHIM_H
#define BLOSC2_RS_POSIX_SHIM_H
#ifdef _WIN32
#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>

/* POSIX mkdir takes a mode; Windows has no permission bits for it */
#define mkdir(path, mode) _mkdir(path)
#define pipe(fds) _pipe((fds), 65536, _O_BINARY)
/* no symbolic links to tell apart */
#define lstat stat
#define S_ISLNK(m) 0
#ifndef SIGALRM
#define SIGALRM 14
#endif
static inline unsigned alarm(unsigned s) { (void)s; return 0; }
static inline int fork(void) { errno = ENOSYS; return -1; }
static inline const char *strsignal(int sig) { (void)sig; return "signal"; }
#endif
#endif
