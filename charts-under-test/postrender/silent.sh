#!/bin/sh
# Post-renderer that prints nothing.
cat >/dev/null
