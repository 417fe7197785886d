CREATE SCHEMA "platform";
--> statement-breakpoint
CREATE TABLE "platform"."job_runs" (
	"job" text NOT NULL,
	"slot" bigint NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "job_runs_job_slot_pk" PRIMARY KEY("job","slot")
);
