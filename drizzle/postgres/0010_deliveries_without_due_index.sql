-- PostgreSQL's claims walk bot_delivery_heads (0006, 0007): the index of every delivery's next attempt
-- was written with each delivery (and on each reschedule) and read by no query. SQLite keeps it: its
-- claim walks it.
DROP INDEX "bot_deliveries_due_idx";
