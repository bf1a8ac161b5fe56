// SDL2's header for ReelSDL (the only module holding its pointers), with functions for
// the macros and unions Swift cannot use directly.
#include <SDL.h>

static inline int reel_sdl_window_centered(void) { return SDL_WINDOWPOS_CENTERED; }
static inline int reel_sdl_event_type(const SDL_Event *event) { return (int)event->type; }
static inline int reel_sdl_event_key(const SDL_Event *event) { return (int)event->key.keysym.sym; }
static inline int reel_sdl_event_window(const SDL_Event *event) { return event->type == SDL_WINDOWEVENT ? (int)event->window.event : -1; }
static inline int reel_sdlk_left(void) { return SDLK_LEFT; }
static inline int reel_sdlk_right(void) { return SDLK_RIGHT; }
static inline int reel_sdlk_escape(void) { return SDLK_ESCAPE; }
