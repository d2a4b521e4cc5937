-- How many webhook endpoints an instance may register, set by the operator (default 10): each
-- endpoint gets a copy of every event and its share of delivery slots, so a tenant with unlimited
-- endpoints could multiply the service's work at will.
ALTER TABLE instances ADD COLUMN max_webhook_endpoints integer NOT NULL DEFAULT 10 CHECK (max_webhook_endpoints BETWEEN 1 AND 1000);
