package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// errClass is middlebench's coarse error class; the Document counts
// requests per class name.
type errClass uint8

const (
	classNone errClass = iota
	classTimeout
	classRefused
	classReset
	classPipe
	classEOF
	classTLS
	classDNS
	classDial
	classProtocol
	classDecompress
	classOther
	numClasses
)

var classNames = [numClasses]string{"", "timeout", "refused", "reset", "pipe", "eof", "tls", "dns", "dial", "protocol", "decompress", "other"}

func (c errClass) String() string { return classNames[c] }

// k6's error codes (lib/netext/httpext/error_codes.go); the numbers are
// k6's so that the error_code tag means the same thing in both tools.
const (
	codeDefault        = 1000
	codeNonTCP         = 1010
	codeRequestTimeout = 1050
	codeDNS            = 1100
	codeDNSNoSuchHost  = 1101
	codeTCP            = 1200
	codeBrokenPipe     = 1201
	codeUnknownErrno   = 1202
	codeDial           = 1210
	codeDialTimeout    = 1211
	codeDialRefused    = 1212
	codeDialErrno      = 1213
	codeReset          = 1220
	codeTLS            = 1300
	codeTLSHeader      = 1301
	codeX509Authority  = 1310
	codeX509Hostname   = 1311
	codeDecompress     = 1701
)

// errDecompress marks a failure to gunzip a response body.
var errDecompress = errors.New("response decompression failed")

// errTimeout marks a request that ran past its timeout (k6 1050).
var errTimeout = errors.New("request timeout")

// classify maps a request error to k6's code and middlebench's class,
// following k6's errorCodeForError order: k6's own timeouts, DNS errors,
// net.OpError by syscall errno (reset, broken pipe, refused) and by
// operation (dial or not), x509 and TLS record errors, then wrapped errors.
// k6 reports EOFs and malformed responses as 1000; their classes (eof,
// protocol) are middlebench's.
func classify(err error) (code uint16, class errClass) {
	switch {
	case err == nil:
		return 0, classNone
	case errors.Is(err, errTimeout):
		return codeRequestTimeout, classTimeout
	case errors.Is(err, errDecompress):
		return codeDecompress, classDecompress
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return codeDNSNoSuchHost, classDNS
		}
		return codeDNS, classDNS
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return classifyOp(opErr)
	}
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.As(err, &unknownAuth):
		return codeX509Authority, classTLS
	case errors.As(err, &hostErr):
		return codeX509Hostname, classTLS
	case errors.As(err, &certErr), errors.As(err, &alert):
		return codeTLS, classTLS
	case errors.As(err, &recErr):
		return codeTLSHeader, classTLS
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return codeDefault, classEOF
	case errors.Is(err, syscall.ECONNRESET):
		return codeReset, classReset
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return codeRequestTimeout, classTimeout
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "tls: "):
		return codeTLS, classTLS
	case strings.Contains(msg, "malformed HTTP"), strings.Contains(msg, "bad status"), strings.Contains(msg, "invalid"),
		strings.Contains(msg, "too many"), strings.Contains(msg, "server sent"), strings.Contains(msg, "unexpected"):
		return codeDefault, classProtocol
	}
	return codeDefault, classOther
}

func classifyOp(e *net.OpError) (uint16, errClass) {
	if e.Timeout() {
		if e.Op == "dial" {
			return codeDialTimeout, classTimeout
		}
		return codeRequestTimeout, classTimeout
	}
	if e.Net != "tcp" && e.Net != "tcp4" && e.Net != "tcp6" {
		return codeNonTCP, classOther
	}
	var errno syscall.Errno
	if errors.As(e.Err, &errno) {
		switch errno {
		case syscall.ECONNRESET:
			return codeReset, classReset
		case syscall.EPIPE:
			return codeBrokenPipe, classPipe
		case syscall.ECONNREFUSED:
			if e.Op == "dial" {
				return codeDialRefused, classRefused
			}
		}
		if e.Op == "dial" {
			return codeDialErrno, classDial
		}
		return codeUnknownErrno, classOther
	}
	if e.Op != "dial" {
		if errors.Is(e.Err, io.EOF) {
			return codeDefault, classEOF
		}
		return codeTCP, classOther
	}
	var dnsErr *net.DNSError
	if errors.As(e.Err, &dnsErr) {
		if dnsErr.IsNotFound {
			return codeDNSNoSuchHost, classDNS
		}
		return codeDNS, classDNS
	}
	return codeDial, classDial
}
