CREATE TABLE "marketplace"."closed_avatars" (
	"avatar_id" text PRIMARY KEY NOT NULL,
	"deleted_at" timestamp with time zone NOT NULL
);
