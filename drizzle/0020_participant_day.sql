DROP INDEX "quest"."participations_running_idx";--> statement-breakpoint
ALTER TABLE "quest"."participations" ADD COLUMN "day_start_hour" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "quest"."participations" ADD COLUMN "ends_at" timestamp with time zone;--> statement-breakpoint
-- Participations so far were counted in UTC with days from midnight (day_start_hour 0 above): their window's end as an instant.
UPDATE "quest"."participations" SET "ends_at" = "window_to"::timestamp AT TIME ZONE "time_zone";--> statement-breakpoint
ALTER TABLE "quest"."participations" ALTER COLUMN "ends_at" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "participations_running_idx" ON "quest"."participations" USING btree ("status","ends_at");
