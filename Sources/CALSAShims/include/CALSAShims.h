// What Swift cannot write for libasound: its error handler is variadic.
#ifndef REEL_CALSA_SHIMS_H
#define REEL_CALSA_SHIMS_H

/// Stops libasound printing its own lines to stderr (a PCM that cannot be opened, a card
/// that is missing): ReelALSA says what failed in one line of its own, and the player's
/// automatic device tries ALSA quietly before it falls back to silence.
void reel_asound_quiet(void);

#endif
