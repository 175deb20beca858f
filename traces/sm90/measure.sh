#!/bin/bash
# One device call: measure traces/sm90, two sittings (scripts/measure-set.sh; README.md).
exec "$(dirname "$0")/../../scripts/measure-set.sh" traces/sm90 sm_90a 2
