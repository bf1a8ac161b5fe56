// Functions for what Swift cannot take from FFmpeg's headers: function-like
// macros (AVERROR, FFERRTAG), casts (AV_NOPTS_VALUE) and the variadic log
// callback. ReelAVTests checks each against the raw value.
#ifndef REEL_CFFMPEG_SHIMS_H
#define REEL_CFFMPEG_SHIMS_H

#include <stdint.h>
#include <stddef.h>

/// AVERROR(e): a POSIX errno as an FFmpeg error code.
int reel_averror(int posix_errno);
/// AVERROR_EOF.
int reel_averror_eof(void);
/// AVERROR_INVALIDDATA.
int reel_averror_invaliddata(void);
/// AVERROR_DECODER_NOT_FOUND.
int reel_averror_decoder_not_found(void);
/// AVERROR_ENCODER_NOT_FOUND.
int reel_averror_encoder_not_found(void);
/// AVERROR_DEMUXER_NOT_FOUND.
int reel_averror_demuxer_not_found(void);
/// AVERROR_EXIT (an interrupt callback asked to stop).
int reel_averror_exit(void);
/// AV_NOPTS_VALUE.
int64_t reel_nopts_value(void);
/// AV_TIME_BASE.
int reel_time_base(void);

/// Routes FFmpeg's log through Reel: nothing is printed, and the last message of
/// level AV_LOG_ERROR or worse on each thread is kept for error reports.
/// Idempotent and thread-safe.
void reel_log_install(void);
/// Copies the calling thread's last FFmpeg error message into buf (empty when there
/// is none) and clears it.
void reel_log_take_last_error(char *buf, size_t size);
/// Clears the calling thread's last FFmpeg error message.
void reel_log_clear(void);

/// Stops alsa-lib (loaded with libavdevice) printing its own errors to stderr: FFmpeg
/// reports the failure, and a command prints one line. Looked up at run time, so Reel
/// needs no ALSA headers; nothing happens where libasound is not loaded.
void reel_alsa_quiet(void);

#endif
