# The reference server as a container, for CI services and `docker run`.
#
#   docker build -t v4cert .
#   docker run --rm -p 8080:8080 -e V4CERT_ROOT_TOKEN=root-token v4cert
#
# serve reads V4CERT_* variables for the flags it is not given (see
# `v4cert help`), because CI services set a container's environment, not
# its arguments. TestDockerfile (cmd/v4cert) runs this file's commands
# against a directory laid out as the image is.

FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
# Static (CGO off) and path-free (-trimpath): the binary runs on any base.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o /out/v4cert ./cmd/v4cert

FROM alpine:3.22
# git: the repositories are real git repositories, and git over HTTP runs
# git's own pack commands. ca-certificates: certify and the proxy reach
# targets over HTTPS.
RUN apk add --no-cache git ca-certificates && adduser -D -u 10001 -h /home/v4cert v4cert
COPY --from=build /out/v4cert /usr/local/bin/v4cert
USER v4cert
WORKDIR /home/v4cert
# Inside a container the server must listen on every interface to be
# reached from the host or from the job next to it.
ENV V4CERT_ADDR=0.0.0.0:8080
EXPOSE 8080
# busybox wget is in the base image; readiness answers 200 once the world
# is built.
HEALTHCHECK --interval=2s --timeout=2s --start-period=5s --retries=15 CMD ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/-/readiness"]
ENTRYPOINT ["v4cert"]
CMD ["serve"]
