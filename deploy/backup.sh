#!/bin/sh
# A daily backup of the data file, kept for 14 days; run from cron or a systemd timer
# as the server's user, with the server's settings:
#
#   15 3 * * *  gin  . /etc/hollywood-gin/env; /opt/hollywood-gin/deploy/backup.sh
#
# `hollywood-gin backup` uses SQLite's online backup API: consistent while the server
# keeps serving. Restore: stop the server, copy a backup over HOLLYWOOD_GIN_DATA_FILE
# (delete the -wal and -shm files beside it), start the server.
set -eu
BACKUPS="${BACKUP_DIR:-/var/backups/hollywood-gin}"
GIN="${GIN_COMMAND:-/opt/hollywood-gin/bin/hollywood-gin}"
export HOLLYWOOD_GIN_DATA_FILE="${HOLLYWOOD_GIN_DATA_FILE:-/var/lib/hollywood-gin/tables.sqlite3}"
mkdir -p "$BACKUPS"
"$GIN" backup "$BACKUPS/tables-$(date +%Y-%m-%d).sqlite3"
find "$BACKUPS" -name 'tables-*.sqlite3' -mtime +14 -delete
