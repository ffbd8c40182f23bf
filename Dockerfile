# The image "middlebench k8s" runs (its --image): a static middlebench at
# /usr/local/bin/middlebench, run as a non-root user (uid 65532, as the
# manifests' pod securityContext says) on a read-only root. Nothing else is
# needed: no shell (the pods take their segment from $(JOB_COMPLETION_INDEX),
# which Kubernetes expands in the arguments), no volume but the merge pod's
# emptyDir; CA certificates (for https targets) come with the base image.
#
#   docker build -t registry.example/middlebench:v1 . && docker push registry.example/middlebench:v1

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no cgo): it runs on any base, scratch included.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/middlebench ./cmd/middlebench

# distroless/static: CA certificates, tzdata, /etc/passwd with "nonroot"
# (65532), no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/middlebench /usr/local/bin/middlebench
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/middlebench"]
