/* bufcache.h: buffers of destroyed objects kept for the next objects that ask for the same
 * size. One module for the library's three caches (docs/architecture.md): a data queue's
 * exchange buffers (src/queue/dq_bufcache.c), a comm queue's chunks and its burst
 * scratch mappings (src/queue/cq_push.c, cq_scratch.c). Each owner says in its file why
 * it keeps its buffers; this module only keeps them.
 *
 * Exact-size reuse: a buffer comes back only for a request of the size it was given back
 * with (the users have one or two sizes each, so size classes would only waste memory).
 * Bounded by a number of buffers and a number of bytes (0: no bound of that kind); a
 * buffer that would pass a bound goes to the owner's release function at once. Where
 * the memory comes from is the owner's: on a miss take returns NULL and the owner
 * allocates (malloc, mmap). Thread-safe (one mutex a cache); not for per-operation
 * paths: owners take and give at create and destroy, or when a queue runs out of its
 * own free list. */
#ifndef SHMEMI_BUFCACHE_H
#define SHMEMI_BUFCACHE_H

#include <pthread.h>
#include <stddef.h>

typedef struct shmemi_bufcache {
    pthread_mutex_t lock;
    int max_bufs;                            /* 0: any number */
    size_t max_bytes;                        /* 0: any total */
    void (*release)(void *p, size_t bytes);  /* returns a buffer the cache does not keep */
    struct shmemi_bufcache_ent {
        void *p;
        size_t bytes;
    } *ent;      /* kept buffers; take looks from the end, where give puts them */
    int n, cap;
    size_t total;
} shmemi_bufcache_t;

#define SHMEMI_BUFCACHE_INIT(max_bufs, max_bytes, release) \
    {PTHREAD_MUTEX_INITIALIZER, (max_bufs), (max_bytes), (release), NULL, 0, 0, 0}

/* A kept buffer of exactly `bytes` (the newest such), or NULL. */
void *shmemi_bufcache_take(shmemi_bufcache_t *c, size_t bytes);
/* The smallest kept buffer of at least `min` bytes (its size in *bytes), or NULL: for
 * owners whose buffers grow, which take one when a buffer must grow. */
void *shmemi_bufcache_take_atleast(shmemi_bufcache_t *c, size_t min, size_t *bytes);
/* Keep p (of `bytes`) for a later take, or release it when a bound is reached. p NULL:
 * nothing. */
void shmemi_bufcache_give(shmemi_bufcache_t *c, void *p, size_t bytes);
/* Release every kept buffer (finalize). */
void shmemi_bufcache_drain(shmemi_bufcache_t *c);

/* The release function for malloc'ed buffers. */
void shmemi_bufcache_free(void *p, size_t bytes);

#endif /* SHMEMI_BUFCACHE_H */
