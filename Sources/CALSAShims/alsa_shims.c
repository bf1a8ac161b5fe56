#include "CALSAShims.h"
#include <alsa/asoundlib.h>

static void reel_asound_silent(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void reel_asound_quiet(void) { snd_lib_error_set_handler(reel_asound_silent); }
