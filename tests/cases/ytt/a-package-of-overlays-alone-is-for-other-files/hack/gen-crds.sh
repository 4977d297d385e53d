#!/bin/sh
# The overlay is applied to generated CRDs, given beside it.
ytt -f tmp/crds -f hack/crd-overlay.yml > config/crds.yml
