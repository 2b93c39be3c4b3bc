-- wrk script for the fan-out floor: empty-bodied POST commands.
wrk.method = "POST"
