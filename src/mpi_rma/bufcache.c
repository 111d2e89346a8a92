/* bufcache.c: exact-size buffer reuse with a count and a byte bound (bufcache.h). */
#include "bufcache.h"

#include <stdlib.h>

void shmemi_bufcache_free(void *p, size_t bytes)
{
    (void)bytes;
    free(p);
}

void *shmemi_bufcache_take(shmemi_bufcache_t *c, size_t bytes)
{
    void *p = NULL;
    pthread_mutex_lock(&c->lock);
    /* newest first: the buffer most likely still in cache and TLB */
    for (int i = c->n - 1; i >= 0; i--) {
        if (c->ent[i].bytes == bytes) {
            p = c->ent[i].p;
            c->ent[i] = c->ent[--c->n];
            c->total -= bytes;
            break;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return p;
}

void *shmemi_bufcache_take_atleast(shmemi_bufcache_t *c, size_t min, size_t *bytes)
{
    void *p = NULL;
    pthread_mutex_lock(&c->lock);
    int best = -1;
    for (int i = 0; i < c->n; i++)
        if (c->ent[i].bytes >= min && (best < 0 || c->ent[i].bytes < c->ent[best].bytes))
            best = i;
    if (best >= 0) {
        p = c->ent[best].p;
        *bytes = c->ent[best].bytes;
        c->total -= *bytes;
        c->ent[best] = c->ent[--c->n];
    }
    pthread_mutex_unlock(&c->lock);
    return p;
}

void shmemi_bufcache_give(shmemi_bufcache_t *c, void *p, size_t bytes)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&c->lock);
    int fits = (c->max_bufs == 0 || c->n < c->max_bufs) &&
               (c->max_bytes == 0 || c->total + bytes <= c->max_bytes);
    if (fits && c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        if (c->max_bufs && cap > c->max_bufs)
            cap = c->max_bufs;
        struct shmemi_bufcache_ent *e = realloc(c->ent, sizeof *e * (size_t)cap);
        if (e)
            c->ent = e, c->cap = cap;
        else
            fits = 0; /* no room to note it: let it go */
    }
    if (fits) {
        c->ent[c->n].p = p;
        c->ent[c->n++].bytes = bytes;
        c->total += bytes;
        p = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (p)
        c->release(p, bytes);
}

void shmemi_bufcache_drain(shmemi_bufcache_t *c)
{
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i < c->n; i++)
        c->release(c->ent[i].p, c->ent[i].bytes);
    free(c->ent);
    c->ent = NULL;
    c->n = c->cap = 0;
    c->total = 0;
    pthread_mutex_unlock(&c->lock);
}
