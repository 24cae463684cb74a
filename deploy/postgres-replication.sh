#!/bin/sh
# Run once by the postgres image when it creates the primary's data (docker-entrypoint-initdb.d):
# the replica may connect for replication, with the password, from the compose network.
set -e
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
