/* module.c: start-up and shutdown of the layers above the runtime (the queues).
 *
 * The runtime calls no queue routine by name (docs/architecture.md): a layer
 * registers a module, and shmem_init / shmem_finalize run the registered callbacks at
 * fixed points. Finalize has steps because the order is not free: sessions must complete
 * before the finalize barrier, data queues are freed collectively after it, and the
 * comm queues' message engine stops last, after a barrier that the runtime (not the
 * module) makes, so that every PE makes the same collective calls in the same order
 * whichever modules it registered. Within a step modules run in registration order.
 *
 * Registration usually happens from a constructor, before main: the table is static
 * storage (zero before any constructor runs) and the lock is statically initialised,
 * so constructor order between files does not matter. */
#include "shmemi.h"
#include <pthread.h>

#define SHMEMI_MAX_MODULES 16

static const shmemi_module_t *modules[SHMEMI_MAX_MODULES];
static int n_modules;
static int modules_up; /* shmemi_modules_init ran and finalize has not ended it */
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

int shmemi_module_register(const shmemi_module_t *m)
{
    pthread_mutex_lock(&modules_lock);
    int rc = -1;
    if (n_modules < SHMEMI_MAX_MODULES) {
        modules[n_modules++] = m;
        rc = 0;
    }
    int late = modules_up;
    pthread_mutex_unlock(&modules_lock);
    if (rc != 0)
        fprintf(stderr, "[shmemq] no room to register module %s\n", m->name);
    else if (late && m->init) /* loaded after shmem_init (dlopen): start it now */
        m->init();
    return rc;
}

void shmemi_modules_init(void)
{
    pthread_mutex_lock(&modules_lock);
    int n = n_modules;
    modules_up = 1;
    pthread_mutex_unlock(&modules_lock);
    for (int i = 0; i < n; i++)
        if (modules[i]->init)
            modules[i]->init();
}

void shmemi_modules_fini(shmemi_fini_step_t step)
{
    pthread_mutex_lock(&modules_lock);
    int n = n_modules;
    if (step == SHMEMI_FINI_STOP)
        modules_up = 0;
    pthread_mutex_unlock(&modules_lock);
    for (int i = 0; i < n; i++)
        if (modules[i]->fini[step])
            modules[i]->fini[step]();
}

/* One spare range per PE (heap.c), so one module may use it: the largest request wins.
 * Only the comm queues' owner mailboxes ask today (cq_owner.c). */
size_t shmemi_modules_heap_spare(int node_size)
{
    pthread_mutex_lock(&modules_lock);
    int n = n_modules;
    pthread_mutex_unlock(&modules_lock);
    size_t most = 0;
    for (int i = 0; i < n; i++)
        if (modules[i]->heap_spare) {
            size_t b = modules[i]->heap_spare(node_size);
            if (b > most)
                most = b;
        }
    return most;
}
