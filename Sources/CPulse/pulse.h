// libpulse's simple (blocking) playback API, for ReelPulse (the only module holding its pointers).
#include <pulse/simple.h>
#include <pulse/error.h>
