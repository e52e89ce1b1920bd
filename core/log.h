/*
 * log.h: diagnostics to stderr, prefixed with the program name.
 *
 * fatal() never returns.  log_error()/log_warn()/log_info() log and return.
 * log_debug() prints only with verbosity >= 1 and carries the function name.
 */
#ifndef WK_LOG_H
#define WK_LOG_H

#include <stdarg.h>

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

void log_init(const char *prog, int verbosity);
/*
 * Also append every message, and every line given to log_tee_line(), to path
 * with a UTC time stamp (onbox keeps .watchkeeper/onbox.log this way, so what
 * it said survives its tmux pane).  Returns 0 or WK_ERR_SYSTEM (errno set).
 */
int log_tee_open(const char *path);
void log_tee_line(const char *line);
void log_tee_close(void);
/* The tee's descriptor (-1 none), for a child that keeps logging to it. */
int log_tee_fd_get(void);
const char *log_prog(void);
void wk_log(enum log_level lvl, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
_Noreturn void wk_fatal(const char *func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_error(...)	wk_log(LOG_LVL_ERROR, __func__, __VA_ARGS__)
#define log_warn(...)	wk_log(LOG_LVL_WARN, __func__, __VA_ARGS__)
#define log_info(...)	wk_log(LOG_LVL_INFO, __func__, __VA_ARGS__)
#define log_debug(...)	wk_log(LOG_LVL_DEBUG, __func__, __VA_ARGS__)
#define fatal(...)	wk_fatal(__func__, __VA_ARGS__)

#endif
