//! Helm charts: loading, values coalescing, rendering and output exactly as
//! `helm template` prints it, in Helm 3 and Helm 4 flavours.
