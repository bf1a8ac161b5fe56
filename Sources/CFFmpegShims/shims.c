#include "CFFmpegShims.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

int reel_averror(int posix_errno) { return AVERROR(posix_errno); }
int reel_averror_eof(void) { return AVERROR_EOF; }
int reel_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
int reel_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
int reel_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
int reel_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
int reel_averror_exit(void) { return AVERROR_EXIT; }
int64_t reel_nopts_value(void) { return AV_NOPTS_VALUE; }
int reel_time_base(void) { return AV_TIME_BASE; }

static _Thread_local char last_error[512];

static void reel_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    if (level > AV_LOG_ERROR) return;
    char line[512];
    int print_prefix = 0;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
    if (n > 0) memcpy(last_error, line, n + 1);
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static void install(void) { av_log_set_callback(reel_log_callback); }
void reel_log_install(void) { pthread_once(&install_once, install); }

void reel_log_take_last_error(char *buf, size_t size) {
    if (size == 0) return;
    snprintf(buf, size, "%s", last_error);
    last_error[0] = 0;
}

void reel_log_clear(void) { last_error[0] = 0; }

#include <dlfcn.h>

typedef void (*reel_alsa_error_handler)(const char *file, int line, const char *function, int err, const char *fmt, ...);

static void reel_alsa_silent(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void reel_alsa_quiet(void) {
    void *setter = dlsym(RTLD_DEFAULT, "snd_lib_error_set_handler");
    if (setter) ((int (*)(reel_alsa_error_handler))setter)(reel_alsa_silent);
}
