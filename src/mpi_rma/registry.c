/* registry.c: live objects of one kind in creation order (registry.h says who uses it and
 * why). A growable array under a mutex: kinds hold few objects and nothing here is on a
 * hot path. */
#include "registry.h"

#include <stdlib.h>
#include <string.h>

int shmemi_registry_add(shmemi_registry_t *r, void *obj)
{
    int rc = 0;
    pthread_mutex_lock(&r->lock);
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        void **a = realloc(r->obj, sizeof *a * (size_t)cap);
        if (a == NULL)
            rc = -1;
        else
            r->obj = a, r->cap = cap;
    }
    if (rc == 0)
        r->obj[r->n++] = obj;
    pthread_mutex_unlock(&r->lock);
    return rc;
}

int shmemi_registry_remove(shmemi_registry_t *r, const void *obj)
{
    int found = 0;
    pthread_mutex_lock(&r->lock);
    /* newest first: objects tend to die in the reverse order of their birth */
    for (int i = r->n - 1; i >= 0; i--) {
        if (r->obj[i] == obj) {
            memmove(&r->obj[i], &r->obj[i + 1], sizeof *r->obj * (size_t)(r->n - i - 1));
            r->n--;
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&r->lock);
    return found;
}

int shmemi_registry_contains(shmemi_registry_t *r, const void *obj)
{
    int found = 0;
    pthread_mutex_lock(&r->lock);
    for (int i = r->n - 1; i >= 0 && !found; i--)
        found = r->obj[i] == obj;
    pthread_mutex_unlock(&r->lock);
    return found;
}

int shmemi_registry_count(shmemi_registry_t *r)
{
    pthread_mutex_lock(&r->lock);
    int n = r->n;
    pthread_mutex_unlock(&r->lock);
    return n;
}

void *shmemi_registry_at(shmemi_registry_t *r, int i)
{
    pthread_mutex_lock(&r->lock);
    void *obj = i >= 0 && i < r->n ? r->obj[i] : NULL;
    pthread_mutex_unlock(&r->lock);
    return obj;
}

void shmemi_registry_each(shmemi_registry_t *r, void (*fn)(void *obj, void *arg), void *arg)
{
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->n; i++)
        fn(r->obj[i], arg);
    pthread_mutex_unlock(&r->lock);
}

void shmemi_registry_clear(shmemi_registry_t *r)
{
    pthread_mutex_lock(&r->lock);
    free(r->obj);
    r->obj = NULL;
    r->n = r->cap = 0;
    pthread_mutex_unlock(&r->lock);
}
