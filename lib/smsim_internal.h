/*
 * smsim_internal.h - what libsmsim's own files share behind the public
 * header's opaque types (never installed, never included outside lib/).
 */
#ifndef SMSIM_LIB_SMSIM_INTERNAL_H
#define SMSIM_LIB_SMSIM_INTERNAL_H

#include "sim/config.h"
#include "sim/error.h"
#include "sim/inst.h"
#include "sim/sim.h"

/* smsim_error has sim_error's layout (asserted in smsim.c). */
#define SERR(e) ((struct sim_error *)(void *)(e))

struct smsim_config {
    struct sim_config cfg;
    struct cfg_origin *origin;   /* where each field's value came from */
};

struct smsim_source {
    struct inst_source src;
};

#endif /* SMSIM_LIB_SMSIM_INTERNAL_H */
