/* registry.h: the live objects of one kind (teams, data queues, comm queues), in creation
 * order, for the walks that need them (shmem_finalize frees or flushes what a program left
 * alive; a comm queue's per-queue threads are stopped before the AM engine stops) and for
 * handle checks that must not trust the handle's memory.
 *
 * One registry per kind, owned by the module that makes the objects: a static
 * shmemi_registry_t with SHMEMI_REGISTRY_INIT. Each call takes the registry's mutex, so
 * threads may create and destroy objects of one kind at once (teams under
 * SHMEM_THREAD_MULTIPLE, SHARED queues). The walks do not hold the lock while the caller
 * works on an object: a flush progresses and a destroy unregisters, and either may take
 * other locks. Creation order is kept because finalize's collective walks (teams, data
 * queues) must free in the same order on every PE.
 *
 * Not for hot paths: add/remove/contains are linear in the number of live objects of the
 * kind (a few, or a few thousand comm queues in the churn tests). The fast handle checks
 * stay with the objects (a magic word read without a lock); the registry is the slow,
 * exact answer. */
#ifndef SHMEMI_REGISTRY_H
#define SHMEMI_REGISTRY_H

#include <pthread.h>

typedef struct shmemi_registry {
    pthread_mutex_t lock;
    void **obj; /* live objects, oldest first */
    int n, cap;
} shmemi_registry_t;

#define SHMEMI_REGISTRY_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0}

/* 0, or -1 when there is no memory to list the object (it is then not live here). */
int shmemi_registry_add(shmemi_registry_t *r, void *obj);
/* 1 if obj was listed (and is no longer), 0 if not. */
int shmemi_registry_remove(shmemi_registry_t *r, const void *obj);
/* 1 if obj is listed: a live object of the kind (no read through obj). */
int shmemi_registry_contains(shmemi_registry_t *r, const void *obj);
int shmemi_registry_count(shmemi_registry_t *r);
/* The i-th live object, oldest first, or NULL past the end. A walk that frees as it goes
 * asks for index 0 again; one that does not, for i = 0, 1, ... */
void *shmemi_registry_at(shmemi_registry_t *r, int i);
/* fn(obj, arg) on every live object, oldest first, under the registry's lock: for short
 * work that neither registers nor unregisters (stopping a thread, freeing at finalize). */
void shmemi_registry_each(shmemi_registry_t *r, void (*fn)(void *obj, void *arg), void *arg);
/* Forget every object and release the list (finalize, after the walks). */
void shmemi_registry_clear(shmemi_registry_t *r);

#endif /* SHMEMI_REGISTRY_H */
