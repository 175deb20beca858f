#!/bin/bash
# One device call: measure traces/mech (scripts/measure-set.sh; README.md, Method).
exec "$(dirname "$0")/../../scripts/measure-set.sh" traces/mech sm_90 "${RUN:-1}"
