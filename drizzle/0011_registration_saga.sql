CREATE TABLE "identity"."registrations" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"failure" text,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identity"."users" ADD COLUMN "status" text DEFAULT 'ACTIVE' NOT NULL;--> statement-breakpoint
CREATE INDEX "registrations_open_idx" ON "identity"."registrations" USING btree ("lease_until") WHERE "identity"."registrations"."state" in ('PENDING', 'COMPENSATING');