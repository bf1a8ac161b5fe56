// ALSA's PCM API (libasound), for ReelALSA (the only module holding its pointers).
#include <alsa/asoundlib.h>
