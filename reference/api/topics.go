package api

import (
	"cmp"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/store"
)

// TopicJSON is the Topic resource.
type TopicJSON struct {
	ID                 int     `json:"id"`
	Name               string  `json:"name"`
	Title              string  `json:"title"`
	Description        *string `json:"description"`
	TotalProjectsCount int     `json:"total_projects_count"`
	OrganizationID     int     `json:"organization_id"`
	AvatarURL          *string `json:"avatar_url"`
}

func (v *view) topic(t *store.Topic, count int) TopicJSON {
	out := TopicJSON{ID: t.ID, Name: t.Name, Title: t.Title, Description: t.Description,
		TotalProjectsCount: count, OrganizationID: t.OrganizationID}
	if t.Avatar != nil {
		// The version changes with each upload, so a new avatar gets a new URL.
		u := fmt.Sprintf("%s/api/v4/topics/%d/avatar?v=%d", v.base, t.ID, t.AvatarVersion)
		out.AvatarURL = &u
	}
	return out
}

// topicOf resolves the `:id` path parameter of a topic.
func (c *Ctx) topicOf(d *store.Data) (*store.Topic, error) {
	id, err := strconv.Atoi(c.R.PathValue("id"))
	if err != nil {
		return nil, invalidParam("id")
	}
	t := d.Topic(id)
	if t == nil {
		return nil, notFound("Topic")
	}
	return t, nil
}

// listTopics implements GET /topics (rules topics.list.*): the topics of one
// organization (the default unless organization_id says otherwise), most
// projects first, ties by id ascending as the platform orders them.
func (s *Server) listTopics(c *Ctx) error {
	in := c.In()
	search := in.String("search")
	without := in.BoolOr("without_projects", false)
	org := in.IntOr("organization_id", store.DefaultOrganization)
	if err := in.Err(); err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		counts := d.TopicCounts()
		var items []*store.Topic
		for _, t := range d.Topics() {
			if t.OrganizationID != org {
				continue
			}
			if search != nil && !strings.Contains(strings.ToLower(t.Name), strings.ToLower(*search)) {
				continue
			}
			if without && counts[t.ID] > 0 {
				continue
			}
			items = append(items, t)
		}
		slices.SortStableFunc(items, func(a, b *store.Topic) int {
			if c := cmp.Compare(counts[b.ID], counts[a.ID]); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		v := c.view(d)
		return Paginate(c, items, nil, func(t *store.Topic) TopicJSON { return v.topic(t, counts[t.ID]) })
	})
}

// getTopic implements GET /topics/:id (rule topics.get.1).
func (s *Server) getTopic(c *Ctx) error {
	var out TopicJSON
	err := s.store.Read(func(d *store.Data) error {
		t, err := c.topicOf(d)
		if err != nil {
			return err
		}
		out = c.view(d).topic(t, d.TopicProjects(t))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// readTopicFields reads what POST and PUT /topics accept; avatar is a
// multipart file, and an empty value removes it.
func (c *Ctx) readTopicFields() (store.TopicFields, error) {
	in := c.In()
	f := store.TopicFields{Name: in.String("name"), Title: in.String("title"),
		Description: in.String("description"), OrganizationID: in.Int("organization_id")}
	file, cleared := in.File("avatar")
	if err := in.Err(); err != nil {
		return f, err
	}
	f.ClearAvatar = cleared
	if file != nil {
		f.Avatar = &store.Avatar{Filename: file.Name, Content: file.Content}
	}
	return f, nil
}

// createTopic implements POST /topics (rules topics.create.*), administrators only.
func (s *Server) createTopic(c *Ctx) error {
	f, err := c.readTopicFields()
	if err != nil {
		return err
	}
	// Organizations are experimental and have no API here; any positive ID names one.
	if f.OrganizationID != nil && *f.OrganizationID <= 0 {
		return notFound("Organization")
	}
	var out TopicJSON
	err = s.store.Write(func(d *store.Data) error {
		t, err := d.CreateTopic(f)
		if err != nil {
			return err
		}
		out = c.view(d).topic(t, d.TopicProjects(t))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// editTopic implements PUT /topics/:id (rules topics.update.*), administrators only.
func (s *Server) editTopic(c *Ctx) error {
	f, err := c.readTopicFields()
	if err != nil {
		return err
	}
	// A topic's organization is fixed once created.
	f.OrganizationID = nil
	var out TopicJSON
	err = s.store.Write(func(d *store.Data) error {
		t, err := c.topicOf(d)
		if err != nil {
			return err
		}
		if err := d.UpdateTopic(t, f); err != nil {
			return err
		}
		out = c.view(d).topic(t, d.TopicProjects(t))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// deleteTopic implements DELETE /topics/:id (rule topics.delete.1): the topic
// goes, and with it its assignments to projects.
func (s *Server) deleteTopic(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		t, err := c.topicOf(d)
		if err != nil {
			return err
		}
		d.DeleteTopic(t)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}

// mergeTopics implements POST /topics/merge (rules topics.merge.*): the
// source's projects move to the target, the source is deleted, and the answer
// is the target.
func (s *Server) mergeTopics(c *Ctx) error {
	in := c.In()
	sourceID, targetID := in.IntOr("source_topic_id", 0), in.IntOr("target_topic_id", 0)
	if err := in.Err(); err != nil {
		return err
	}
	var out TopicJSON
	err := s.store.Write(func(d *store.Data) error {
		source, target := d.Topic(sourceID), d.Topic(targetID)
		if source == nil || target == nil {
			return notFound("Topic")
		}
		if err := d.MergeTopics(source, target); err != nil {
			switch {
			case errors.Is(err, store.ErrTopicsIdentical):
				return errorf(http.StatusBadRequest, "The source topic and the target topic are identical.")
			case errors.Is(err, store.ErrTopicsOrganization):
				return errorf(http.StatusBadRequest, "The source topic and the target topic must belong to the same organization.")
			}
			return err
		}
		out = c.view(d).topic(target, d.TopicProjects(target))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// getTopicAvatar serves the bytes a topic's avatar_url points at
// (provisioning: the platform serves uploads outside the API).
func (s *Server) getTopicAvatar(c *Ctx) error {
	var a *store.Avatar
	err := s.store.Read(func(d *store.Data) error {
		t, err := c.topicOf(d)
		if err != nil {
			return err
		}
		if t.Avatar == nil {
			return notFound("Avatar")
		}
		a = t.Avatar
		return nil
	})
	if err != nil {
		return err
	}
	ct := mime.TypeByExtension(strings.ToLower(path.Ext(a.Filename)))
	if ct == "" {
		ct = "application/octet-stream"
	}
	h := c.W.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(len(a.Content)))
	h.Set("X-Content-Type-Options", "nosniff")
	c.W.WriteHeader(http.StatusOK)
	c.W.Write(a.Content)
	return nil
}
