package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
)

// responseConn sends the same GET over one keep-alive connection and reads
// each answer to its last byte. net/http's parser costs the same on every
// target, so it cancels out of the added figures.
type responseConn struct {
	conn    net.Conn
	reader  *bufio.Reader
	request []byte
}

func newResponseConn(c net.Conn, host, path string) *responseConn {
	return &responseConn{
		conn:    c,
		reader:  bufio.NewReaderSize(c, 64<<10),
		request: []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: hoplat\r\n\r\n"),
	}
}

// roundTrip sends the request and reads the whole response; a status
// outside 2xx or a closed connection is an error: its time is no hop's.
func (r *responseConn) roundTrip() error {
	if _, err := r.conn.Write(r.request); err != nil {
		return err
	}
	resp, err := http.ReadResponse(r.reader, nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	if resp.Close {
		return fmt.Errorf("the server closed the connection (Connection: close)")
	}
	return nil
}
